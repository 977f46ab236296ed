// `--company` and `--agent` as people write them: a company by id, name or task prefix, agents
// by id or name (case-insensitive), resolved once at start through the API. A name matching
// several is an error naming the candidates, never a guess.
import type { ShopfloorClient } from '../client/index.ts'
import { isUuid } from '../contract/common.ts'


export class ResolveError extends Error {}

function one<T>(matches: T[], what: string, ref: string, describe: (m: T) => string): T {
  if (matches.length === 1) return matches[0]
  if (matches.length === 0) throw new ResolveError(`no ${what} called "${ref}"`)
  throw new ResolveError(`"${ref}" matches ${matches.length} ${what === 'company' ? 'companies' : `${what}s`} (${matches.map(describe).join(', ')}): use the id`)
}

/** The company's id: an id as given, else the one company with that name or task prefix. */
export async function resolveCompany(client: ShopfloorClient, ref: string): Promise<string> {
  if (isUuid(ref)) return ref
  const wanted = ref.toLowerCase()
  const companies = await client.companies.list()
  const matches = companies.filter((c) => c.name.toLowerCase() === wanted || c.task_prefix.toLowerCase() === wanted)
  return one(matches, 'company', ref, (c) => `${c.name} ${c.id}`).id
}

/** Agent ids for ids or names of the company's agents. */
export async function resolveAgents(client: ShopfloorClient, companyId: string, refs: string[]): Promise<string[]> {
  if (refs.every((ref) => isUuid(ref))) return refs
  const agents = await client.agents.list(companyId)
  return refs.map((ref) => {
    if (isUuid(ref)) return ref
    const wanted = ref.toLowerCase()
    return one(agents.filter((a) => a.name.toLowerCase() === wanted), 'agent', ref, (a) => `${a.name} ${a.id}`).id
  })
}
