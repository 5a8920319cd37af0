/** Node and edge types, at module scope so React Flow never sees a new object between renders. */
import type { EdgeTypes, NodeTypes } from '@xyflow/react';
import ChannelEdgeView from './channel-edge';
import AgentNode from './nodes/agent-node';
import CombineNode from './nodes/combine-node';
import MeshNode from './nodes/mesh-node';
import ServiceNode from './nodes/service-node';
import WorkflowNode from './nodes/workflow-node';

export const nodeTypes: NodeTypes = {
  agent: AgentNode,
  workflow: WorkflowNode,
  mesh: MeshNode,
  service: ServiceNode,
  combine: CombineNode,
};

export const edgeTypes: EdgeTypes = { channel: ChannelEdgeView };
