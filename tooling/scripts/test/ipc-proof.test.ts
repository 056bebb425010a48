// ipc-proof.mjs where it cannot prove anything: it says why it skipped (no GPU in host mode; on
// the fake driver, no CuPy or no python3) and exits 0; its command line, and its Python child's.
// (On a GPU the proof itself runs: `node tooling/scripts/ipc-proof.mjs`.)
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onGpu, onHost, spawnWithHangReport } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

const script = (name: string) => fileURLToPath(new URL(`../${name}`, import.meta.url));
const proof = (...args: string[]) =>
  spawnWithHangReport(process.execPath, [script('ipc-proof.mjs'), ...args], { timeout: 60_000 });
const python = spawnSync('python3', ['--version']).status === 0;

describe('ipc-proof.mjs', () => {
  it('takes no arguments', () => {
    expect(proof('--bogus')).toMatchObject({
      status: 2,
      stdout: '',
      stderr: 'ipc-proof: unknown option --bogus (it takes no options)\n',
    });
  });

  it.runIf(!onGpu())('skips, saying why, where there is no GPU or no Python with CuPy and PyTorch', () => {
    const run = proof();
    const skipped = onHost()
      ? 'skipped: no GPU (CUDA is disabled by RMMJS_DISABLE_CUDA; unset it to use the GPU.)\n'
      : python
        ? "skipped: python3 cannot use CuPy and PyTorch with CUDA (ModuleNotFoundError: No module named 'cupy')\n"
        : 'skipped: no python3\n';
    expect(run).toMatchObject({ status: 0, stdout: skipped, stderr: '' });
  });

  it.runIf(python)('its Python child takes no arguments (its commands come on stdin)', () => {
    const run = spawnSync('python3', [script('ipc_proof_child.py'), '--bogus'], { encoding: 'utf8' });
    expect([run.status, run.stdout, run.stderr]).toEqual([
      2,
      '',
      'ipc_proof_child.py: unexpected argument --bogus (it takes none: JSON commands on stdin)\n',
    ]);
  });
});
