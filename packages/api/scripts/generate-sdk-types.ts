// Writes packages/sdk/src/openapi.ts from the REST contract (see src/rest/sdk-types.ts).
import { writeFileSync } from 'node:fs';
import { SDK_TYPES_FILE, sdkTypesSource } from '../src/rest/sdk-types';

writeFileSync(SDK_TYPES_FILE, await sdkTypesSource());
process.stdout.write(`wrote ${SDK_TYPES_FILE}\n`);
