import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SDK_TYPES_FILE, sdkTypesSource } from './sdk-types';

describe('the sdk against the OpenAPI document', () => {
  it('builds on types generated from the current document (regenerate: npm run generate:sdk --workspace @trellis/api)', async () => {
    const committed = readFileSync(SDK_TYPES_FILE, 'utf8');
    expect(committed, `${SDK_TYPES_FILE} is stale: run npm run generate:sdk --workspace @trellis/api`).toBe(await sdkTypesSource());
  }, 30_000);
});
