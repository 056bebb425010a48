import * as C from '@rmmjs/cli';
const { proxy, revoke } = Proxy.revocable({}, {});
revoke();
const vals = [undefined, null, 1n, Symbol('s'), {}, 'x', -1, NaN, 2 ** 40, proxy, [1]];
const show = (v) =>
  typeof v === 'symbol' ? 'sym' : typeof v === 'bigint' ? v + 'n' : v === proxy ? 'revoked' : JSON.stringify(v);
const fns = {
  formatBytes: (v) => C.formatBytes(v),
  parseLog: (v) => C.parseLog(v),
  parseLogSrc: (v) => C.parseLog('Thread,Time,Action,Pointer,Size,Stream\n', v),
  LogParser: (v) => new C.LogParser(v).finish(),
  line: (v) => new C.LogParser('s').line(v),
  summarizeLog: (v) => C.summarizeLog(v),
  plotData: (v) => C.plotData(v),
  plotSpec: (v) => C.plotSpec(v),
  random: (v) => C.random(v)(),
  randomWorkload: (v) => C.randomWorkload(v).steps,
  pairNs: (v) => C.pairNs(v, 1, 1),
  median: (v) => C.median(v, 1),
  formatInfo: (v) => C.formatInfo(v),
  formatReplay: (v) => C.formatReplay(v),
  renderHtml: (v) => C.renderHtml(v, 't').length,
  runRandomWorkload: (v) => C.runRandomWorkload(v, { sizes: new Float64Array(1), frees: new Float64Array(1) }),
};
for (const [name, f] of Object.entries(fns)) {
  const out = [];
  for (const v of vals) {
    try {
      const r = f(v);
      out.push(`${show(v)}:ok`);
    } catch (e) {
      out.push(`${show(v)}:${e?.constructor?.name}/${e?.code ?? '-'}`);
    }
  }
  console.log(name, out.join(' '));
}
for (const [name, f] of Object.entries({
  main: (v) => C.main(v, { stdout: { write() {} }, stderr: { write() {} } }),
  replayLog: (v) => C.replayLog(v),
  replayOnMr: (v) => C.replayOn(C.parseLog('Thread,Time,Action,Pointer,Size,Stream\n'), v),
  runBench: (v) => C.runBench(v),
  renderSvg: (v) => C.renderSvg(v),
  threadOps: (v) => C.threadOpsPerSecond(v, 1, { seconds: 0.01 }),
})) {
  const out = [];
  for (const v of vals) {
    try {
      const r = await f(v);
      out.push(`${show(v)}:ok`);
    } catch (e) {
      out.push(`${show(v)}:${e?.constructor?.name}/${e?.code ?? '-'}`);
    }
  }
  console.log(name, out.join(' '));
}
