// `npm run openapi:dump`: writes the OpenAPI document of the code as it stands to openapi.json
// (committed, for integrators; test/contract/openapi-file.test.ts fails when it is stale).
import fs from 'node:fs'
import path from 'node:path'
import { openApiDocument, openApiText } from '../src/api/openapi.ts'

const file = path.resolve(import.meta.dirname, '..', 'openapi.json')
const doc = await openApiDocument()
fs.writeFileSync(file, openApiText(doc))
process.stdout.write(`${path.relative(process.cwd(), file) || file}: ${Object.keys(doc.paths).length} paths, ${Object.keys(doc.components.schemas).length} components\n`)
