// passthrough.mjs - the peer proxy of bench/latency (make bench): the
// pinned @civic/passthrough-mcp-server relaying MCP between its stdin and
// stdout and an upstream it spawns over stdio.
//
// usage: node passthrough.mjs UPSTREAM [ARGS ...]
//
// A proxy with no policy, no audit and no sandbox: what a Node.js
// passthrough costs per call, measured side by side with bouncer.  Its
// logger writes to stdout by default; its own stdio mode sends that to
// stderr (configureLoggerForStdio, not exported), and so does this.
import { PassthroughContext } from '@civic/passthrough-mcp-server';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
	console.error('usage: node passthrough.mjs UPSTREAM [ARGS ...]');
	process.exit(2);
}
console.log = console.error;
console.debug = console.error;
const context = new PassthroughContext();
await context.connect(new StdioServerTransport(),
    new StdioClientTransport({ command, args, stderr: 'inherit' }));
