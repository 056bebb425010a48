// Prints what it was started with (its arguments, node's own options, RMMJS_TEST_ECHO and whether
// HOME is set) as JSON on stdout, 'to stderr' on stderr, and exits with the status its first
// argument names.
console.log(
  JSON.stringify({
    args: process.argv.slice(2),
    execArgv: process.execArgv,
    echo: process.env.RMMJS_TEST_ECHO,
    home: 'HOME' in process.env,
  }),
);
console.error('to stderr');
process.exitCode = Number(process.argv[2]);
