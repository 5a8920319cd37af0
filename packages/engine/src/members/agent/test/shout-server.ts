/** The `shout` test tool server over stdio; run with `node --import tsx shout-server.ts`. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { shoutServer } from './shout-tool';

await shoutServer().connect(new StdioServerTransport());
