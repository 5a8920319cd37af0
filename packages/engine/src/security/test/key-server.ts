/**
 * A stdio MCP tool server for the tool-secret tests; run with `node --import tsx key-server.ts`.
 * Its one tool, `key`, answers with the value of its SHOUT_KEY environment variable (or `unset`),
 * which is how a test sees whether the secrets store placed a secret in the server's environment.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'key', version: '1.0.0' });
server.registerTool('key', { description: 'Says the SHOUT_KEY it was started with.', inputSchema: { text: z.string() } }, () => ({
  content: [{ type: 'text', text: `key=${process.env.SHOUT_KEY ?? 'unset'}` }],
}));
await server.connect(new StdioServerTransport());
