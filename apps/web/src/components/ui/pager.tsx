import { buttonClass } from './button';

/** Previous / next over `total` items, `size` per page; `page` is 0-based. */
export function Pager({ page, size, total, onPage, testId }: { page: number; size: number; total: number; onPage: (p: number) => void; testId: string }) {
  const pages = Math.max(1, Math.ceil(total / size));
  if (total === 0) return null;
  return (
    <div className="flex items-center justify-between gap-3 py-2 text-sm text-slate-600" data-testid={testId}>
      <span>
        {page * size + 1}–{Math.min(total, (page + 1) * size)} of {total.toLocaleString()}
      </span>
      <span className="flex gap-2">
        <button type="button" className={buttonClass.secondary} disabled={page === 0} onClick={() => onPage(page - 1)} data-testid={`${testId}-prev`}>
          Previous
        </button>
        <button type="button" className={buttonClass.secondary} disabled={page + 1 >= pages} onClick={() => onPage(page + 1)} data-testid={`${testId}-next`}>
          Next
        </button>
      </span>
    </div>
  );
}
