// The peers (CuPy, PyTorch) of bench_peers.py, run with our rows' own numbers: the same pair size
// and count, the same copy size and the same random workload (handed over in a file of float64s:
// the sizes, then the frees). Without a GPU the script only checks its arguments and runs its
// loops on a stand-in (--dry-run), so that a mistake in it shows up before a GPU run. Without
// python3 no peer is measured; without CuPy or PyTorch, the other is (each line the script writes
// to stderr, such as `cupy: No module named 'cupy'`, is printed as `peers: <line>`).
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { peerRepeatsFor } from './suballocators.mjs';

const MiB = 1 << 20;
const script = fileURLToPath(new URL('./bench_peers.py', import.meta.url));

/** Runs the peers; records each figure and returns them (name -> figure), or undefined. */
export function benchPeers({ record, quick, gpu, workload, pairs }) {
  const file = join(tmpdir(), `rmmjs-bench-workload-${process.pid}.f64`);
  writeFileSync(file, Buffer.concat([Buffer.from(workload.sizes.buffer), Buffer.from(workload.frees.buffer)]));
  const args = [
    script,
    '--workload',
    file,
    '--pairs',
    String(pairs),
    '--pair-bytes',
    String(MiB),
    // benchCopies' size.
    '--copy-bytes',
    String((quick ? 32 : 256) * MiB),
    '--repeats',
    String(peerRepeatsFor(quick)),
    ...(gpu ? [] : ['--dry-run']),
  ];
  try {
    const run = spawnSync('python3', args, { encoding: 'utf8' });
    if (run.status !== 0) {
      const why = (run.stderr || run.error?.message || `exit ${run.status}`).trim().split('\n').pop();
      console.log(`peers: not measured (${why})`);
      return undefined;
    }
    for (const line of run.stderr.split('\n').filter(Boolean)) console.log(`peers: ${line}`);
    const peers = JSON.parse(run.stdout);
    if (!gpu) {
      console.log(`peers: bench_peers.py --dry-run: ${run.stdout.trim()}`);
      return undefined;
    }
    for (const [name, value] of Object.entries(peers)) {
      record('peers (Python)', name, value, name.endsWith('GB/s') ? 'GB/s' : name.endsWith('ns/op') ? 'ns/op' : 'ns');
    }
    return peers;
  } finally {
    rmSync(file, { force: true });
  }
}
