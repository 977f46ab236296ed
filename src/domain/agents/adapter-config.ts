import { adapterConfigProblem } from '../../contract/adapter-config.ts'
import { invalidField } from '../../server/errors.ts'

/** 422 naming the field when `config` does not suit `adapter` (contract/adapter-config.ts). */
export function checkAdapterConfig(adapter: string | null, config: Record<string, unknown>): void {
  const problem = adapterConfigProblem(adapter, config)
  if (problem) throw invalidField('body', problem.field, problem.message, config[problem.field.split('.')[1]])
}
