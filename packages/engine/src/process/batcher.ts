/**
 * Group commit for deliveries. A worker's concurrent jobs each submit their message id; ids that
 * arrive while a batch is being processed wait and go together in the next one. Under load this
 * turns thousands of tiny transactions into a few large set-based ones; when idle, a lone message
 * waits only until the next turn of the event loop.
 */

/** Tuning for {@link Batcher}. */
export interface BatcherOptions {
  /** Most ids in one batch. */
  maxBatch: number;
  /** Batches processed at the same time (1 for the single-connection embedded database). */
  maxInFlight: number;
}

interface Waiter<T, R> {
  key: string;
  item: T;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

/**
 * Collects keyed items and runs `process` on groups of them; each submitter gets its key's result.
 * A result may itself be a promise: the batch counts as done (and the next may start) when
 * `process` resolves, and that key's submitter is answered when its own promise settles, so one
 * slow item (a heavy step) never holds back the answers of the rest of its batch.
 */
export class Batcher<T, R> {
  private waiting: Waiter<T, R>[] = [];
  private inFlight = 0;
  private scheduled = false;
  private refusal: { result: R } | undefined;

  constructor(
    private readonly process: (items: T[]) => Promise<Map<string, R | Promise<R>>>,
    private readonly options: BatcherOptions,
  ) {}

  /** Resolves with the result for `key` once its batch is processed; rejects if the batch throws. */
  submit(key: string, item: T): Promise<R> {
    if (this.refusal) return Promise.resolve(this.refusal.result);
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ key, item, resolve, reject });
      this.kick();
    });
  }

  /**
   * Takes no more items: answers every item still waiting for a batch with `result` at once, and
   * every later submit likewise. Batches already being processed are not touched.
   * @returns how many waiting items were answered.
   */
  refuse(result: R): number {
    this.refusal = { result };
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) w.resolve(result);
    return waiting.length;
  }

  private kick(): void {
    if (this.scheduled || this.inFlight >= this.options.maxInFlight || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < this.options.maxInFlight && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.options.maxBatch);
      this.inFlight++;
      // The same key twice in one batch (a duplicate delivery) is processed once; both get the result.
      const items = [...new Map(batch.map((w) => [w.key, w.item])).values()];
      this.process(items)
        .then((results) => {
          for (const w of batch) {
            const r = results.get(w.key);
            if (r === undefined) w.reject(new Error(`no result for ${w.key}`));
            else Promise.resolve(r).then(w.resolve, w.reject);
          }
        })
        .catch((err: unknown) => {
          for (const w of batch) w.reject(err);
        })
        .finally(() => {
          this.inFlight--;
          this.kick();
        });
    }
  }
}
