// A second process for the directory-lock tests: opens the embedded
// database in argv[2], writes one row, prints "ready", then idles until
// killed. Run with `tsx --conditions=react-server`.
import { openDatabase } from '../../../lib/server/db/open';

const handle = await openDatabase({ kind: 'pglite', dir: process.argv[2] });
await handle.client.appSetting.upsert({
  where: { key: 'holder' },
  create: { key: 'holder', value: { pid: process.pid } },
  update: { value: { pid: process.pid } },
});
console.log('ready');
setInterval(() => {}, 60_000);
