import fs from 'node:fs'
import path from 'node:path'
import type { CompanyExport, Template } from '../../contract/company-export.ts'

// Ready companies to start from: export documents kept in templates/*.json, listed by
// GET /api/templates (the web app's new-company page) and `shopfloor companies import --template`.

const DESCRIPTIONS: Record<string, string> = {
  'software-studio': 'A CEO, a CTO, two engineers and QA, with weekly planning and release-check routines.',
  'content-agency': 'An editor, a researcher, a writer and a copy editor publishing three articles a week.',
}

let loaded: Template[] | null = null

export function listTemplates(): Template[] {
  loaded ??= Object.keys(DESCRIPTIONS).map((id) => {
    const document = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'templates', `${id}.json`), 'utf8')) as CompanyExport
    return { id, name: document.company.name, description: DESCRIPTIONS[id], agents: document.agents?.length ?? 0, document }
  })
  return loaded
}
