/**
 * A child process for the file token store test: writes `count` entries of its own into the
 * store at argv[2] and updates one shared-name entry of its own after each, as fast as it can.
 */
import { FileTokenStore } from "../../src/auth/file-token-store.js";

const [file, name, countText] = process.argv.slice(2);
const store = new FileTokenStore(file);
const count = Number(countText);
for (let i = 0; i < count; i++) {
  const tokens = { accessToken: `${name}-${i}`, tokenType: "Bearer", issuer: "https://as.example" };
  await store.setTokens(`https://${name}.example/mcp/${i}`, tokens);
  await store.setTokens(`https://${name}.example/mcp`, tokens);
  await store.setClient(`https://${name}.example`, { clientId: `${name}-${i}` });
}
