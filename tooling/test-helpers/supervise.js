// `node supervise.js <ms> <command> [args...]`: runs the command with this process's stdio and ends
// as it did (its status, or its signal raised again here). Still running after <ms> (a hang), it
// first gets every thread's native stack written to stderr (gdb, where installed; else each
// thread's state and kernel wait channel), then is killed with SIGKILL, as this process is after it.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const [limit, command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: 'inherit' });

function threadStates(pid) {
  const read = (path) => {
    try {
      return readFileSync(path, 'utf8').trim();
    } catch {
      return '?';
    }
  };
  return readdirSync(`/proc/${pid}/task`)
    .map((tid) => {
      const state = read(`/proc/${pid}/task/${tid}/stat`).replace(/^\d+ /, '').split(' ').slice(0, 2).join(' ');
      return `thread ${tid} ${state} waiting in ${read(`/proc/${pid}/task/${tid}/wchan`)}`;
    })
    .join('\n');
}

function nativeStacks(pid) {
  const gdb = spawnSync('gdb', ['-p', String(pid), '-batch', '-nx', '-ex', 'thread apply all bt'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (gdb.error === undefined && gdb.status === 0) return gdb.stdout;
  try {
    return `(no stacks: gdb ${gdb.error?.message ?? `exited with ${gdb.status}`})\n${threadStates(pid)}`;
  } catch (error) {
    return `(no stacks: ${error.message})`;
  }
}

const timer = setTimeout(() => {
  process.stderr.write(`\nsupervise: still running after ${limit} ms; the native stacks of pid ${child.pid}:\n`);
  process.stderr.write(`${nativeStacks(child.pid)}\n`);
  child.kill('SIGKILL');
}, Number(limit));

child.on('exit', (status, signal) => {
  clearTimeout(timer);
  if (signal === null) process.exit(status);
  process.kill(process.pid, signal);
});
