'use client';
/**
 * Find a member by name: Ctrl/Cmd+K opens a search over member ids and labels; arrows pick, Enter
 * jumps to the member (selects and centres it), Escape closes and gives the focus back.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { inputClass } from '@/components/ui/button';
import type { MemberNode } from './types';

/** Members whose id or label contains `query` (case-insensitive), those that start with it first. */
export function searchMembers(nodes: readonly MemberNode[], query: string): MemberNode[] {
  const q = query.trim().toLowerCase();
  if (!q) return [...nodes];
  const names = (n: MemberNode) => [n.id, n.data.member.label ?? ''].map((s) => s.toLowerCase());
  const hits = nodes.filter((n) => names(n).some((s) => s.includes(q)));
  const starts = (n: MemberNode) => (names(n).some((s) => s.startsWith(q)) ? 0 : 1);
  return hits.sort((a, b) => starts(a) - starts(b));
}

/** Opens on Ctrl/Cmd+K anywhere on the page; `onJump` gets the chosen member's id. */
export function MemberSearch({ nodes, onJump }: { nodes: readonly MemberNode[]; onJump: (id: string) => void }) {
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const back = useRef<HTMLElement | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const hits = useMemo(() => searchMembers(nodes, query), [nodes, query]);

  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey || e.key.toLowerCase() !== 'k') return;
      e.preventDefault();
      back.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      setQuery('');
      setActive(0);
      setOpen(true);
    }
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);

  if (!open) return null;
  const close = (restore: boolean) => {
    setOpen(false);
    if (restore) back.current?.focus();
  };
  const jump = (id: string | undefined) => {
    if (!id) return;
    close(false);
    onJump(id);
  };
  const chosen = hits[Math.min(active, hits.length - 1)];
  return (
    <div className="fixed inset-0 z-50 flex items-start justify-center bg-slate-900/20 pt-24" onMouseDown={() => close(true)}>
      <div role="dialog" aria-modal="true" aria-label="Find a member" data-testid="member-search"
        className="w-96 rounded-lg border border-slate-200 bg-white p-3 shadow-xl" onMouseDown={(e) => e.stopPropagation()}>
        <input ref={input} className={inputClass} value={query} placeholder="Find a member by id or label"
          aria-label="Member name" role="combobox" aria-expanded="true" aria-controls="member-search-hits"
          aria-activedescendant={chosen ? `member-hit-${chosen.id}` : undefined} data-testid="member-search-input"
          onChange={(e) => { setQuery(e.target.value); setActive(0); }}
          onKeyDown={(e) => {
            if (e.key === 'Escape') { e.preventDefault(); close(true); }
            else if (e.key === 'Enter') { e.preventDefault(); jump(chosen?.id); }
            else if (e.key === 'ArrowDown') { e.preventDefault(); setActive((a) => Math.min(a + 1, hits.length - 1)); }
            else if (e.key === 'ArrowUp') { e.preventDefault(); setActive((a) => Math.max(a - 1, 0)); }
          }} />
        <ul id="member-search-hits" role="listbox" aria-label="Members" className="mt-2 max-h-64 overflow-auto text-sm">
          {hits.map((n) => (
            <li key={n.id} id={`member-hit-${n.id}`} role="option" aria-selected={n.id === chosen?.id} data-testid={`member-hit-${n.id}`}
              onClick={() => jump(n.id)}
              className={`cursor-pointer rounded px-2 py-1 ${n.id === chosen?.id ? 'bg-sky-100 text-sky-900' : 'hover:bg-slate-50'}`}>
              <span className="font-medium">{n.data.member.label ?? n.id}</span>
              {n.data.member.label && <span className="ml-2 font-mono text-xs text-slate-600">{n.id}</span>}
              <span className="ml-2 text-xs text-slate-600">{n.data.member.kind}</span>
            </li>
          ))}
          {hits.length === 0 && <li className="px-2 py-1 text-slate-600" data-testid="member-search-none">No member matches “{query}”.</li>}
        </ul>
      </div>
    </div>
  );
}
