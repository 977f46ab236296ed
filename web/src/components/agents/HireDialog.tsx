import { useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { Agent } from '#src/client/types.ts'
import { api } from '../../lib/api.ts'
import { keys } from '../../lib/queries.ts'
import { useSubmit } from '../../lib/useForm.ts'
import { AgentFormFields, useAgentForm } from './AgentForm.tsx'
import { FormDialog } from '../form.tsx'

/** Hires an agent at once, or proposes the hire for approval. */
export function HireDialog({ companyId, onClose, onHired }: { companyId: string; onClose: () => void; onHired: (agent: Agent) => void }) {
  const client = useQueryClient()
  const { form, fields } = useAgentForm()
  const [requestApproval, setRequestApproval] = useState(false)
  const submit = useSubmit(async () => {
    const agent = await api.agents.hire(companyId, { ...fields(), request_approval: requestApproval })
    void client.invalidateQueries({ queryKey: keys.company(companyId) })
    onHired(agent)
  })
  return (
    <FormDialog title="Hire an agent" submit={submit} submitLabel={requestApproval ? 'Propose hire' : 'Hire'} onClose={onClose}>
      <AgentFormFields form={form} />
      <label className="field check">
        <input type="checkbox" checked={requestApproval} onChange={(e) => setRequestApproval(e.target.checked)} />
        Ask for approval first (the agent waits as pending until a member approves)
      </label>
    </FormDialog>
  )
}
