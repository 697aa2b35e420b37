// SPDX-License-Identifier: BSD-2-Clause
// tdigest_npm.js: the npm `tdigest` package (Will Welch's implementation of
// Dunning's t-digest) on the values bench_tdigest writes, for its
// comparison at equal size. bench_tdigest runs it; tdigest_vs_npm.sh
// installs the package into a temporary directory first.
//
//   node tdigest_npm.js MODULE_DIR DATA_FILE CENTROIDS [DELTA]
//
// DATA_FILE holds native-endian doubles. Without DELTA the compression is
// searched so that the digest ends with at most CENTROIDS centroids (and as
// close to it as the search gets); with DELTA that one is used. Prints one
// line: "<centroids> <delta> <q0> <q1> ..." for the quantiles in QS.
'use strict';

const fs = require('fs');
const path = require('path');

const QS = [1e-4, 1e-3, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999];

const [moduleDir, dataFile, target, fixedDelta] = process.argv.slice(2);
const { TDigest } = require(path.join(moduleDir, 'node_modules', 'tdigest'));
const buf = fs.readFileSync(dataFile);
const data = new Float64Array(buf.buffer, buf.byteOffset, buf.length / 8);
const want = parseInt(target, 10);

function digest(delta) {
    // The package's defaults but delta: K = 25 (recompress past 25/delta
    // centroids) and CX = 1.1. A last compress() as its own tools do.
    const td = new TDigest(delta, 25, 1.1);
    for (let i = 0; i < data.length; i++)
        td.push(data[i]);
    td.compress();
    return td;
}

let delta, td;
if (fixedDelta !== undefined) {
    delta = parseFloat(fixedDelta);
    td = digest(delta);
} else {
    // More centroids for smaller delta: bisect on log(delta), keeping the
    // largest digest that is not over the size asked for.
    let lo = Math.log(1e-4), hi = Math.log(0.5);
    for (let it = 0; it < 12; it++) {
        const mid = (lo + hi) / 2, t = digest(Math.exp(mid));
        if (t.size() > want) {
            lo = mid;
        } else {
            hi = mid;
            if (td === undefined || t.size() > td.size()) {
                td = t;
                delta = Math.exp(mid);
            }
        }
    }
}
console.log([td.size(), delta].concat(QS.map((q) => td.percentile(q)))
    .join(' '));
