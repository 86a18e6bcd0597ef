/** What the consumer project runs: the sources a user would write, one per way of loading us. */

/** A chat with the in-test Ollama through `toolbridge` (the README's way) and through a registry of core + one adapter. */
export const ESM_CHAT = `
import { connect } from 'toolbridge';
import { createRegistry } from '@toolbridge/core/runtime';
import { createOllamaAdapter } from '@toolbridge/adapter-ollama';

const ollama = await connect('ollama');
const viaToolbridge = await ollama.chat({ messages: [{ role: 'user', content: 'Say hello' }] }, { timeoutMs: 60_000 });
const registry = createRegistry({ adapters: [createOllamaAdapter()] });
const tool = await registry.connect('ollama');
const viaRegistry = await tool.chat({ messages: [{ role: 'user', content: 'Say hello again' }] }, { timeoutMs: 60_000 });
await registry.close();
console.log(JSON.stringify({ toolbridge: viaToolbridge?.message.content, registry: viaRegistry?.message.content }));
process.exit(0);
`;

/** require() of every package named in argv[2] (a JSON list): the count of its exports, or the error. */
export const CJS_REQUIRE = `
const out = {};
for (const name of JSON.parse(process.argv[2])) {
  try { out[name] = Object.keys(require(name)).length; } catch (e) { out[name] = e.code + ': ' + e.message.split('\\n')[0]; }
}
console.log(JSON.stringify(out));
`;

/** Every public package's types in one strict file, and the bridge's README promise: createServer gives { app, listen, close }, app typed. */
export function typesCheck(names: readonly string[]): string {
  const imports = names.map((n, i) => `import * as p${i} from '${n}';`).join('\n');
  return `${imports}
import { createServer } from '@toolbridge/bridge';

type IsAny<T> = 0 extends 1 & T ? true : false;
const server = createServer({});
const appIsTyped: IsAny<typeof server.app> = false;
const listening: Promise<{ url: string; close(): Promise<void> }> = server.listen(0, '127.0.0.1');
const closing: Promise<void> = server.close();
export const all = [${names.map((_, i) => `p${i}`).join(', ')}, appIsTyped, listening, closing];
`;
}
