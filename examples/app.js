// A small Node.js program that burns CPU in named functions, for
// `node --cpu-prof app.js && chrome2spaa CPU*.cpuprofile | spaa-top`.
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function work() { let s = 0; for (let i = 0; i < 20; i++) s += fib(20); return s; }
const start = Date.now();
let total = 0;
while (Date.now() - start < 200) total += work();
if (total < 0) console.log(total);
