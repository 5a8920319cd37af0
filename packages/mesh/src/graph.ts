/**
 * Small graph helpers for the validator: nodes are member ids, edges are channels between them.
 * Iterative, so a mesh of any size cannot overflow the stack.
 */

/** A directed edge from one node to another. */
export interface Edge {
  from: string;
  to: string;
}

/** Successors of every node; nodes without edges map to an empty list. */
export function adjacency(nodes: readonly string[], edges: readonly Edge[]): Map<string, string[]> {
  const next = new Map<string, string[]>(nodes.map((n) => [n, []]));
  for (const { from, to } of edges) next.get(from)?.push(to);
  return next;
}

/** Every node reachable from `starts` (the starts included). */
export function reachableFrom(
  starts: readonly string[],
  next: ReadonlyMap<string, readonly string[]>,
): Set<string> {
  const seen = new Set<string>(starts);
  const todo = [...starts];
  for (let node = todo.pop(); node !== undefined; node = todo.pop()) {
    for (const to of next.get(node) ?? []) {
      if (!seen.has(to)) {
        seen.add(to);
        todo.push(to);
      }
    }
  }
  return seen;
}

/**
 * The node sets that lie on a cycle: strongly connected components of two or more nodes,
 * and single nodes with an edge to themselves (Tarjan's algorithm).
 */
export function cycles(nodes: readonly string[], edges: readonly Edge[]): Set<string>[] {
  const next = adjacency(nodes, edges);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: Set<string>[] = [];
  let counter = 0;

  for (const root of nodes) {
    if (index.has(root)) continue;
    // Each frame is a node and how many of its successors have been looked at.
    const frames: [string, number][] = [[root, 0]];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1];
      if (frame === undefined) break;
      const [node, i] = frame;
      const successors = next.get(node) ?? [];
      if (i < successors.length) {
        frame[1] = i + 1;
        const to = successors[i] as string;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          frames.push([to, 0]);
        } else if (onStack.has(to)) {
          low.set(node, Math.min(low.get(node) ?? 0, index.get(to) ?? 0));
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent !== undefined)
        low.set(parent[0], Math.min(low.get(parent[0]) ?? 0, low.get(node) ?? 0));
      if (low.get(node) !== index.get(node)) continue;
      const component = new Set<string>();
      for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
        onStack.delete(member);
        component.add(member);
        if (member === node) break;
      }
      if (component.size > 1 || successors.includes(node)) found.push(component);
    }
  }
  return found;
}
