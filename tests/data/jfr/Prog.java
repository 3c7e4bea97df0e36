import java.util.concurrent.locks.LockSupport;
import java.util.ArrayList;
import java.util.List;

// A small workload for jfr2spaa's tests: hot loops in distinct methods,
// allocation, a contended monitor, parking and sleeping, on named threads.
public class Prog {
    static final Object lock = new Object();
    static volatile long sink;

    static long spinA(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * 31 ^ (s >>> 3); return s; }
    static long spinB(long n) { long s = 1; for (long i = 0; i < n; i++) s = s * 6364136223846793005L + i; return s; }

    static void compute(long ms) {
        long end = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < end) { sink += spinA(20000); sink += spinB(30000); }
    }

    static void allocate(long ms) {
        long end = System.currentTimeMillis() + ms;
        List<Object> keep = new ArrayList<>();
        while (System.currentTimeMillis() < end) {
            keep.add(new byte[1024 + (int) (sink & 4095)]);
            keep.add(new long[64]);
            if (keep.size() > 2000) keep.clear();
            sink += keep.size();
        }
    }

    static void holdLock(long ms) {
        long end = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < end) {
            synchronized (lock) { sink += spinA(2_000_000); }
        }
    }

    static void parkAndSleep(long ms) throws InterruptedException {
        long end = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < end) {
            LockSupport.parkNanos(30_000_000L);
            Thread.sleep(30);
        }
    }

    public static void main(String[] args) throws Exception {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 1500;
        Thread[] t = {
            new Thread(() -> compute(ms), "worker-compute"),
            new Thread(() -> allocate(ms), "worker-alloc"),
            new Thread(() -> holdLock(ms), "locker-1"),
            new Thread(() -> holdLock(ms), "locker-2"),
            new Thread(() -> { try { parkAndSleep(ms); } catch (InterruptedException e) { } }, "sleeper"),
        };
        for (Thread x : t) x.start();
        for (Thread x : t) x.join();
    }
}
