/** Node and edge types, at module scope so React Flow never sees a new object between renders. */
import type { EdgeTypes, NodeTypes } from '@xyflow/react';
import ChannelEdgeView from './channel-edge';
import { KIND_UI } from './kinds/kind-ui';

/** One node component per member kind, from the kinds' definitions. */
export const nodeTypes: NodeTypes = Object.fromEntries(Object.entries(KIND_UI).map(([kind, ui]) => [kind, ui.node]));

export const edgeTypes: EdgeTypes = { channel: ChannelEdgeView };
