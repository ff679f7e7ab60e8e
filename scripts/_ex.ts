import { EXERCISES, grade } from '../src/lessons/exercises';
const only = process.argv[2];
for (const ex of EXERCISES) {
  if (only && !ex.id.includes(only)) continue;
  const ref = grade(ex, ex.kind === 'program' ? ex.solution : ex.rightAnswer);
  const st = grade(ex, ex.kind === 'program' ? ex.starter : ex.wrongAnswer);
  console.log(ex.id.padEnd(20), 'ref', ref.pass ? 'PASS' : 'FAIL', 'starter', st.pass ? 'PASS!!' : 'fail');
  if (!ref.pass) console.log('   ', ref.error ?? '', ref.explanation?.summary ?? '', ref.tests.filter(t => !t.pass).map(t => t.message).join('\n    '));
}
