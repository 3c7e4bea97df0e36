function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
let t = Date.now(), s = 0;
while (Date.now() - t < 1500) { s += fib(20); const a = Array.from({length: 2000}, (_, i) => (i * 7919) % 1000); a.sort((x, y) => x - y); }
console.log(s > 0);
