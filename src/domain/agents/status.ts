// Agent statuses and the dormant rule live in the contract: the runner and the web app need them too.
export { AGENT_STATUSES, type AgentStatus, DORMANT_STATUSES, isDormant } from '../../contract/agents.ts'
