/** The command-line client of the API. */
export async function runClient(argv: string[]): Promise<number> {
  console.error(`Unknown command: ${argv[0]}`)
  return 1
}
