// Imported first by bench/records.ts: with --json, stdout must carry only the
// one JSON object, so the app's logger (which writes to stdout) stays silent.
if (process.argv.includes('--json')) process.env.LOG_LEVEL = 'silent';
