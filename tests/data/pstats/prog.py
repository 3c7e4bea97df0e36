# A program for pstats2spaa's tests: a helper shared by two callers, direct
# and mutual recursion, built-ins, a sleep.
import time


def leaf(n):
    s = 0
    for i in range(n):
        s += i
    return s


def helper(n):
    return leaf(n) + leaf(n // 2)


def a():
    return helper(60000)


def b():
    return helper(30000) + sorted([3, 1, 2])[0]


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def even(n):
    return True if n == 0 else odd(n - 1)


def odd(n):
    return False if n == 0 else even(n - 1)


def main():
    for _ in range(3):
        a()
        b()
    fib(15)
    even(200)
    time.sleep(0.005)


main()
