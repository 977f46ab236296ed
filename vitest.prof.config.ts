import base from '/work/main/vitest.config.ts'
export default { ...base, test: { ...base.test, execArgv: ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] } }
