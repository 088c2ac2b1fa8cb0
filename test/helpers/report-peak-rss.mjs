// Preloaded with --import by the memory test and the list benchmark: the process
// writes its peak resident set (getrusage's ru_maxrss, what `/usr/bin/time -f %M`
// prints) to stderr as it exits, as `maxrss_kb=N`.
process.on('exit', () => process.stderr.write(`maxrss_kb=${process.resourceUsage().maxRSS}\n`));
