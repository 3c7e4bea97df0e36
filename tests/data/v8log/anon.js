'use strict';
const data = Array.from({ length: 100000 }, (_, i) => (i * 7919) % 100003);
let total = 0;
for (let round = 0; round < 12; round++) {
  const copy = data.slice();
  copy.sort(function (a, b) { return a - b; });
  const doubled = copy.map((x) => x * 2 + round);
  total += doubled.reduce((s, v) => s + v, 0);
}
if (total < 0) console.log(total);
