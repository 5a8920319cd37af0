/**
 * The sdk's wire types, generated from the OpenAPI document with openapi-typescript into
 * `packages/sdk/src/openapi.ts`. The sdk builds its requests and reads its answers through these
 * types, so a change to the contract that the sdk does not follow fails its typecheck once the file is
 * regenerated (`npm run generate:sdk --workspace @trellis/api`); sdk-types.test.ts fails while the
 * committed file is stale.
 */
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { openApiDocument } from './routes';

/** Where the generated file lives. */
export const SDK_TYPES_FILE = fileURLToPath(new URL('../../../sdk/src/openapi.ts', import.meta.url));

const HEADER = `/**
 * Types of Trellis's REST API, generated from its OpenAPI document (packages/api/src/rest) by
 * \`npm run generate:sdk --workspace @trellis/api\`. Do not edit: regenerate.
 */
`;

/** The file's text for the current contract. */
export async function sdkTypesSource(): Promise<string> {
  // A copy: openapi-typescript annotates the object it is given.
  const doc = JSON.parse(JSON.stringify(openApiDocument())) as Parameters<typeof openapiTS>[0];
  return HEADER + astToString(await openapiTS(doc));
}
