// Golden lookups by Mozilla's source-map (0.8.0): generated (line 1-based, column 0-based) -> original.
// Run at test-writing time, not in the build: npm install source-map@0.8.0 && node gen.js MAP (grid|real) OUT.tsv
// grid: lines 1-8, columns 0-60 (the small maps); real: every position of /App.js (and one after), a stride of 997 over
// the bundle, and past its end (the expo export map of the fixture zip).
const fs = require('fs');
const { SourceMapConsumer } = require('source-map');
function fmt(v) { return v === null || v === undefined ? '-' : String(v); }
async function table(file, positions) {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  const rows = [];
  await SourceMapConsumer.with(raw, null, c => {
    for (const [line, column] of positions) {
      const o = c.originalPositionFor({ line, column, bias: SourceMapConsumer.GREATEST_LOWER_BOUND });
      rows.push([line, column, fmt(o.source), fmt(o.line), fmt(o.column), fmt(o.name)].join('\t'));
    }
  });
  return rows;
}
(async () => {
  const [mapFile, kind, out] = process.argv.slice(2);
  let positions = [];
  if (kind === 'grid') {
    for (let l = 1; l <= 8; l++) for (let col = 0; col <= 60; col++) positions.push([l, col]);
  } else {
    const raw = JSON.parse(fs.readFileSync(mapFile, 'utf8'));
    const app = raw.sources.indexOf('/App.js');
    const cols = [];
    await SourceMapConsumer.with(raw, null, c => {
      c.eachMapping(m => { if (m.source === '/App.js') cols.push(m.generatedColumn); });
    });
    let max = 0;
    await SourceMapConsumer.with(raw, null, c => { c.eachMapping(m => { if (m.generatedColumn > max) max = m.generatedColumn; }); });
    for (const col of cols) { positions.push([1, col]); positions.push([1, col + 1]); }
    // spread over the whole bundle, deterministic stride (not random: the table is committed)
    for (let col = 0; col <= max + 50; col += 997) positions.push([1, col]);
    positions.push([1, max]); positions.push([1, max + 1000]); positions.push([2, 0]);
  }
  const rows = await table(mapFile, positions);
  fs.writeFileSync(out, '# generated line\tcolumn (0-based)\tsource\toriginal line\toriginal column (0-based)\tname -- by mozilla/source-map 0.8.0 originalPositionFor (GREATEST_LOWER_BOUND)\n' + rows.join('\n') + '\n');
  console.log(out, rows.length);
})();
