/**
 * What an agent may spend in one run, and what it has spent: tokens always, money when the
 * model's price is known.
 */
import type { AgentMember } from '@trellis/mesh/schema';
import { agentFailure } from './fail';

/** A model's list price in US dollars per one million tokens. */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

/** Prices by exact model name. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * Default prices: OpenAI's published list prices (openai.com/api/pricing) for standard,
 * non-cached, non-batch requests. Prices change and other providers charge differently, so a
 * deployment passes its own table through `runAgent`'s `prices` option. A model missing here has
 * no money budget, only a token budget.
 */
export const DEFAULT_PRICES: PriceTable = {
  'gpt-4o': { inputPerMillion: 2.5, outputPerMillion: 10 },
  'gpt-4o-mini': { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  'gpt-4.1': { inputPerMillion: 2, outputPerMillion: 8 },
  'gpt-4.1-mini': { inputPerMillion: 0.4, outputPerMillion: 1.6 },
  'gpt-4.1-nano': { inputPerMillion: 0.1, outputPerMillion: 0.4 },
  'o4-mini': { inputPerMillion: 1.1, outputPerMillion: 4.4 },
};

/**
 * Limits for one agent in one run. Omitted limits do not apply. Because a run may call the same
 * agent once per message, the caller passes what this agent already spent earlier in the run.
 */
export interface AgentBudget {
  /** Most prompt + completion tokens for this agent in this run. */
  maxTokens?: number;
  /** Most US dollars for this agent in this run; ignored when the model has no price. */
  maxCostUsd?: number;
  /** Tokens this agent already used earlier in the run. */
  spentTokens?: number;
  /** US dollars this agent already spent earlier in the run. */
  spentCostUsd?: number;
  /** The window these figures cover, in refusals: `in this run` (default) or e.g. `today (UTC)`. */
  window?: string;
}

/** What one `runAgent` call used. */
export interface AgentUsage {
  promptTokens: number;
  completionTokens: number;
  /** US dollars, or null when the model has no price in the table. */
  costUsd: number | null;
}

/** Adds up usage across the model calls of one `runAgent` call and enforces the budget. */
export class Spend {
  private prompt = 0;
  private completion = 0;
  private readonly price: ModelPrice | undefined;

  private readonly budgets: readonly AgentBudget[];

  constructor(
    private readonly member: AgentMember,
    budget: AgentBudget | readonly AgentBudget[],
    prices: PriceTable,
  ) {
    this.budgets = Array.isArray(budget) ? budget : [budget as AgentBudget];
    this.price = Object.hasOwn(prices, member.model) ? prices[member.model] : undefined;
  }

  /**
   * Refuses before any model call when a budget is already used up (spent at or over its limit).
   * @throws StepError `budget_spent` naming the agent, the window and the figure.
   */
  ensureRoom(): void {
    for (const b of this.budgets) {
      const window = b.window ?? 'in this run';
      if (b.maxTokens !== undefined && (b.spentTokens ?? 0) >= b.maxTokens) {
        throw agentFailure(this.member, 'budget_spent', `agent ${this.member.id} already used ${b.spentTokens ?? 0} tokens ${window}, its budget is ${b.maxTokens}`, false);
      }
      if (b.maxCostUsd !== undefined && this.price && (b.spentCostUsd ?? 0) >= b.maxCostUsd) {
        throw agentFailure(this.member, 'budget_spent', `agent ${this.member.id} already spent $${(b.spentCostUsd ?? 0).toFixed(6)} ${window}, its budget is $${b.maxCostUsd}`, false);
      }
    }
  }

  /** US dollars for one call's tokens at this model's price; null without a price. */
  costOf(promptTokens: number, completionTokens: number): number | null {
    if (!this.price) return null;
    return (promptTokens * this.price.inputPerMillion + completionTokens * this.price.outputPerMillion) / 1_000_000;
  }

  /**
   * Records one model response's token counts, then checks the budgets.
   * @throws StepError `budget_spent` when tokens or (priced models only) dollars exceed a limit.
   *   The call that crossed the line has already been paid for, so an overrun is at most one call.
   */
  add(promptTokens: number, completionTokens: number): void {
    this.prompt += promptTokens;
    this.completion += completionTokens;
    const cost = this.cost();
    for (const { maxTokens, maxCostUsd, spentTokens = 0, spentCostUsd = 0, window = 'in this run' } of this.budgets) {
      const tokens = spentTokens + this.prompt + this.completion;
      if (maxTokens !== undefined && tokens > maxTokens) {
        throw agentFailure(this.member, 'budget_spent', `agent ${this.member.id} used ${tokens} tokens ${window}, over its budget of ${maxTokens}`, false);
      }
      if (maxCostUsd !== undefined && cost !== null && spentCostUsd + cost > maxCostUsd) {
        const total = (spentCostUsd + cost).toFixed(6);
        throw agentFailure(this.member, 'budget_spent', `agent ${this.member.id} spent $${total} on ${this.member.model} ${window}, over its budget of $${maxCostUsd}`, false);
      }
    }
  }

  /** Usage so far. */
  usage(): AgentUsage {
    return { promptTokens: this.prompt, completionTokens: this.completion, costUsd: this.cost() };
  }

  private cost(): number | null {
    return this.costOf(this.prompt, this.completion);
  }
}
