// A small Node.js program that leaks 1000 objects of class Leaky between two
// heap snapshots, before.heapsnapshot and after.heapsnapshot, for
// `spaa-heapdiff before.heapsnapshot after.heapsnapshot` and, run with
// `node --track-heap-objects`, for `chrome2spaa after.heapsnapshot`.
const v8 = require("v8");
class Leaky { constructor(i) { this.i = i; this.data = new Array(16).fill(i); } }
const cache = [];
function remember(n) { for (let i = 0; i < n; i++) cache.push(new Leaky(i)); }
v8.writeHeapSnapshot("before.heapsnapshot");
remember(1000);
v8.writeHeapSnapshot("after.heapsnapshot");
