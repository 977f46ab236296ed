import { repositoryProblem } from '../../contract/repository.ts'
import { invalidField } from '../../server/errors.ts'

/** 422 naming `field` when a project's repository is not an address a runner may clone (contract/repository.ts). */
export function checkRepository(address: string | null | undefined, allowLocal: boolean, field = 'repository'): void {
  if (address == null) return
  const problem = repositoryProblem(address, allowLocal)
  if (problem) throw invalidField('body', field, `repository ${problem}`, address)
}
