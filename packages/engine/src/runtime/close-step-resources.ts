/** Runtime entry: closing what heavy steps keep open between deliveries (SQL connection pools). */
import { closeSqlPools } from '../members/workflow/steps/sql';

/** Closes the pooled connections SQL steps opened; call before dropping their databases or exiting. */
export async function closeStepResources(): Promise<void> {
  await closeSqlPools();
}
