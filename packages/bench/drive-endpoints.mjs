import { fork } from 'node:child_process';
import autocannon from 'autocannon';
const child = fork('./prof-endpoints.mjs');
const url = await new Promise((r) => child.once('message', r));
await autocannon({ url: url + '/1.0/ClientRecom/bench/PopularItems?count=3', connections: 10, duration: 3 });
child.send('start'); await new Promise((r) => child.once('message', r));
const res = await autocannon({ url: url + '/1.0/ClientRecom/bench/PopularItems?count=3', connections: 10, duration: 10 });
console.log('req/s', res.requests.average);
child.send('stop'); await new Promise((r) => child.once('message', r));
