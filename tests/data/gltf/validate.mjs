// Runs the Khronos glTF validator on .glb files and prints, per file, one
// line of JSON: the validator's version, its issue counts and every issue's
// code, severity, message and where it is (tests/glb.rs reads these lines).
//
// Usage: node validate.mjs VALIDATOR_DIR FILE...
//   VALIDATOR_DIR is the folder scripts/gltf-validator.sh prints: its
//   node_modules holds the gltf-validator package.
// Exits 0 when every file was validated, whatever the validator found;
// not 0 when a file cannot be read or the validator throws.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';

const [validatorDir, ...files] = process.argv.slice(2);
if (!validatorDir || files.length === 0) {
    console.error('usage: node validate.mjs VALIDATOR_DIR FILE...');
    process.exit(2);
}
const validator = createRequire(join(validatorDir, 'node_modules', 'index.js'))('gltf-validator');

const severities = ['error', 'warning', 'info', 'hint'];
for (const file of files) {
    const report = await validator.validateBytes(new Uint8Array(readFileSync(file)), {
        uri: basename(file),
        format: 'glb',
        // Every issue, so a failing test can print them all.
        maxIssues: 0,
        writeTimestamp: false,
    });
    const issues = report.issues;
    console.log(JSON.stringify({
        file,
        validatorVersion: report.validatorVersion,
        numErrors: issues.numErrors,
        numWarnings: issues.numWarnings,
        numInfos: issues.numInfos,
        numHints: issues.numHints,
        messages: issues.messages.map((issue) => ({
            code: issue.code,
            severity: severities[issue.severity] ?? String(issue.severity),
            message: issue.message,
            where: issue.pointer ?? issue.offset ?? null,
        })),
    }));
}
