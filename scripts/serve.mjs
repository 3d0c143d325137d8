// `make serve`: serves the built site (dist/) on http://127.0.0.1:8080 until Ctrl+C, with its
// precompressed copies, as a static host would. Make builds it first only if a source changed
// since the last build (`make test` builds the same site), so a serve after a test answers at once.
//
//   node scripts/serve.mjs [folder] [port]

import { resolve, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { serveFolder } from "./static-server.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dir = resolve(process.argv[2] || join(root, "dist"));
const port = Number(process.argv[3] || 8080);
try {
  const server = await serveFolder({ dir, precompressed: true, port });
  console.log(`sessionscope: serving ${dir} on ${server.url} (Ctrl+C to stop)`);
} catch (error) {
  const why = error.code === "EADDRINUSE" ? `port ${port} is taken (give another: node scripts/serve.mjs dist <port>)` : error.message;
  console.error(`sessionscope: ${why}`);
  process.exit(1);
}
