// Workload 10: what Shopfloor adds to a run's prompt, in tokens, for a small and a large
// company. The same agent does the same task (the same description, comments and goal chain:
// the task's own content) with the same two skills; what differs is what the company holds:
// agents, documents and pinned documents, and the agent's memory after a long life. The prompt
// is the runner's own (src/runner/prompt.ts) built from a real claim's context; the MCP tools'
// definitions, which an agent CLI puts in the model's context too, are counted from a real
// `shopfloor mcp`. Tokens are counted with gpt-tokenizer's o200k_base encoding (an estimate for
// other models' tokenizers). Target: the large company's prompt within 2x the small one's.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { encode } from 'gpt-tokenizer'
import pg from 'pg'
import { ShopfloorClient } from '../../src/client/index.ts'
import { buildPrompt, type PromptSkills } from '../../src/runner/prompt.ts'
import { account } from '../lib/api.ts'
import { ROOT } from '../lib/processes.ts'
import type { Section } from '../lib/report.ts'
import type { Bench, SharedServer } from './context.ts'

interface Shape {
  label: string
  agents: number
  documents: number
  pinned: number
  memoryChars: number
}

const SHAPES: Shape[] = [
  { label: 'small', agents: 3, documents: 3, pinned: 2, memoryChars: 400 },
  { label: 'large', agents: 300, documents: 5000, pinned: 60, memoryChars: 50_000 },
]

const tokens = (text: string) => encode(text).length

/** A memory of `chars` characters: short lasting notes, as `remember` writes them. */
function memoryOf(chars: number): string {
  const notes: string[] = []
  for (let i = 1; notes.join('').length < chars; i++) notes.push(`- Note ${i}: the staging deploy needs the VPN; run lint before tests; ask Dana about pricing.\n`)
  return notes.join('').slice(0, chars)
}

async function companyOf(base: string, apiKey: string, shape: Shape, db: pg.Client) {
  const client = new ShopfloorClient({ baseUrl: base, credentials: { apiKey } })
  const company = await client.companies.create({ name: `Prompt ${shape.label}`, task_prefix: shape.label === 'small' ? 'PSM' : 'PLG', mission: 'Make invoicing painless for small shops.' })
  const manager = await client.agents.hire(company.id, { name: 'Morgan', title: 'Head of engineering', adapter: 'process' })
  const skills = await Promise.all(['code-review', 'writing-a-plan'].map((name) =>
    client.skills.create(company.id, { name, description: `How we do ${name.replace(/-/g, ' ')}: the steps, what to check, when to ask.`, body: `# ${name}\n1. Read first.` })))
  const agent = await client.agents.hire(company.id, {
    name: 'Wren', title: 'Engineer', adapter: 'process', reports_to_id: manager.id, skills: skills.map((s) => s.id),
    instructions: 'Work in small steps. Write tests first. Ask when a requirement is unclear.',
  })
  // The rest of the company in bulk: agents and documents (bodies of a few paragraphs).
  await db.query(
    `INSERT INTO agents (company_id, name, adapter, reports_to_id)
     SELECT $1, 'Agent ' || g, 'process', $2 FROM generate_series(1, $3) g`,
    [company.id, manager.id, Math.max(0, shape.agents - 2)],
  )
  await db.query(
    `INSERT INTO documents (company_id, title, body, tags, pinned)
     SELECT $1, 'Document ' || g || ': how we handle case ' || g,
            'How we handle case ' || g || ' when a customer asks for it, in a few steps.' || E'\\n\\n' || repeat('Details of the procedure and its exceptions. ', 40),
            ARRAY['area-' || (g % 12)], g <= $3
       FROM generate_series(1, $2) g`,
    [company.id, shape.documents, shape.pinned],
  )
  await client.documents.create(company.id, { title: 'Memory of Wren', agent_id: agent.id, body: memoryOf(shape.memoryChars) })
  const goal = await client.goals.create(company.id, { title: 'Launch self-serve invoicing', description: 'Shops send their first invoice within 5 minutes.' })
  const sub = await client.goals.create(company.id, { title: 'Invoice editor', parent_id: goal.id })
  const task = await client.tasks.create(company.id, {
    title: 'Add a due date to invoices', goal_id: sub.id, status: 'backlog',
    description: 'Invoices need a due date field, shown on the PDF, defaulting to 30 days after the issue date.',
  })
  for (const body of ['Please keep the PDF layout as it is.', 'Net 14 should be possible too.', 'The API change needs a migration.']) {
    await client.comments.create(company.id, task.id, { body })
  }
  await client.tasks.update(company.id, task.id, { assignee_agent_id: agent.id, status: 'todo' })
  const context = (await client.runs.claim(company.id, { runner_id: 'prompt-bench', agent_ids: [agent.id] }))!
  const skillList: PromptSkills = {
    native: false,
    skills: context.skills.map((s) => ({ name: s.name, description: s.description, path: `/home/agent/.shopfloor/skills/${s.name}/SKILL.md` })),
  }
  const prompt = buildPrompt(context, { tools: true, skills: skillList })
  await client.runs.report(company.id, context.run.id, { runner_id: 'prompt-bench', status: 'succeeded' })
  return { prompt, context }
}

/** The tools `shopfloor mcp` lists, as JSON (what a CLI hands the model), in tokens. */
async function toolTokens(base: string, apiKey: string, companyId: string): Promise<number> {
  const client = new Client({ name: 'prompt-bench', version: '1.0.0' })
  await client.connect(new StdioClientTransport({
    command: process.execPath, args: ['bin/shopfloor.js', 'mcp'], cwd: ROOT, stderr: 'ignore',
    env: { PATH: process.env.PATH ?? '', SHOPFLOOR_API_URL: base, SHOPFLOOR_API_KEY: apiKey, SHOPFLOOR_COMPANY_ID: companyId },
  }))
  try {
    return tokens(JSON.stringify((await client.listTools()).tools))
  } finally {
    await client.close()
  }
}

/** Tokens of each `# ` part of the prompt, by its heading. */
function parts(prompt: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const part of prompt.split(/\n\n(?=# )/)) {
    const heading = part.startsWith('# ') ? part.slice(2).split('\n')[0].replace(/:.*$/, '').replace(/ (PSM|PLG)-\d+$/, '') : '(closing)'
    out.set(heading, (out.get(heading) ?? 0) + tokens(part))
  }
  return out
}

export async function promptTokens(bench: Bench, shared: SharedServer): Promise<Section> {
  bench.log('workload 10: the tokens of a run prompt, small and large company')
  const base = shared.server.url
  const who = await account(base, 'prompt')
  const db = new pg.Client({ connectionString: shared.url })
  await db.connect()
  try {
    const measured = []
    for (const shape of SHAPES) {
      const { prompt, context } = await companyOf(base, who.apiKey, shape, db)
      measured.push({ shape, prompt, context, total: tokens(prompt), parts: parts(prompt), tools: await toolTokens(base, who.apiKey, context.company.id) })
    }
    const [small, large] = measured
    const ratio = (large.total + large.tools) / (small.total + small.tools)
    const promptRatio = large.total / small.total
    const count = (n: number) => n.toLocaleString('en-US')
    const headings = [...new Set(measured.flatMap((m) => [...m.parts.keys()]))]
    return {
      title: '10. What a run is told: prompt tokens',
      columns: ['company', 'agents', 'documents (pinned)', 'memory chars', 'prompt chars', 'prompt tokens', 'MCP tool definitions tokens', 'total tokens'],
      rows: measured.map((m) => [
        m.shape.label, count(m.shape.agents), `${count(m.shape.documents)} (${m.shape.pinned})`, count(m.shape.memoryChars),
        count(m.prompt.length), count(m.total), count(m.tools), count(m.total + m.tools),
      ]),
      subtables: [{
        title: 'Tokens by part of the prompt',
        columns: ['part', 'small', 'large'],
        rows: headings.map((h) => [h, String(small.parts.get(h) ?? 0), String(large.parts.get(h) ?? 0)]),
      }],
      verdicts: [
        {
          target: "large company's prompt <= 2x the small company's",
          measured: `${promptRatio.toFixed(2)}x (${count(large.total)} against ${count(small.total)} tokens)`,
          met: promptRatio <= 2,
        },
        {
          target: "large company's prompt and MCP tool definitions <= 2x the small company's",
          measured: `${ratio.toFixed(2)}x (${count(large.total + large.tools)} against ${count(small.total + small.tools)} tokens)`,
          met: ratio <= 2,
        },
      ],
      notes: [
        'Both companies: the same agent (instructions, manager, two skills listed with their paths as for a CLI without a skills folder), the same task with three comments and a goal chain of two.',
        `The large company's prompt names ${large.context.documents.length} of its ${large.shape.pinned} pinned documents (title and one-line summary; search_docs finds the rest) and carries the first ${count(large.context.memory?.body.length ?? 0)} characters of a ${count(large.shape.memoryChars)}-character memory.`,
        `Tokens: gpt-tokenizer's o200k_base encoding (${(small.prompt.length / Math.max(1, small.total)).toFixed(1)} characters per token in the small prompt); other models' tokenizers count somewhat differently.`,
        'A task\'s own description, its last 20 comments and its goal chain are pasted as they are and grow with the task, not with the company; they are the same in both companies here.',
      ],
    }
  } finally {
    await db.end()
  }
}
