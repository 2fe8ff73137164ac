/**
 * Large generated source files in the languages whose outline has no dedicated generator in generate.ts: as their
 * formatters lay them out, documented functions or methods of a dozen lines, wrapped in the namespace, module or
 * class the language's generated code puts them in. For the 4 MB outline rows of `bench:context -- --scale` and the
 * body-blanking tests.
 */

/** `head`, then `chunk(0)`, `chunk(1)`, … while the whole stays within `bytes`, then `tail`. */
function filled(head: string, chunk: (i: number) => string, tail: string, bytes: number): string {
  const parts = [head];
  let size = head.length + tail.length;
  for (let i = 0; ; i++) {
    const c = chunk(i);
    if (size + c.length > bytes) break;
    parts.push(c);
    size += c.length;
  }
  return parts.join('') + tail;
}

/** C#: static methods of one class in a namespace, in the Allman layout dotnet format writes. */
export function csharpSource(bytes: number): string {
  return filled(
    'using System;\nusing System.Collections.Generic;\n\nnamespace Big\n{\n    public static class Items\n    {\n',
    (i) =>
      `        /// <summary>Describe${i} returns a text.</summary>\n        public static string Describe${i}(string prefix, int id)\n        {\n` +
      `            if (id > ${i})\n            {\n                return $"{prefix}-{id}";\n            }\n            var parts = new List<string>();\n` +
      `            for (var k = 0; k < 3; k++)\n            {\n                parts.Add(new string('x', k));\n            }\n            return string.Join(",", parts);\n        }\n\n`,
    '    }\n}\n',
    bytes,
  );
}

/** C++: functions in one namespace. */
export function cppSource(bytes: number): string {
  return filled(
    '#include <string>\n#include <vector>\n\nnamespace big {\n\n',
    (i) =>
      `// Describe${i} returns a text.\nstd::string describe${i}(const std::string& prefix, int id) {\n  if (id > ${i}) {\n    return prefix + "-" + std::to_string(id);\n  }\n` +
      `  std::vector<std::string> parts;\n  for (int k = 0; k < 3; k++) {\n    parts.push_back(std::string(k, 'x'));\n  }\n  return parts.empty() ? prefix : parts[0];\n}\n\n`,
    '}  // namespace big\n',
    bytes,
  );
}

/** Python: top-level functions with docstrings. */
export function pythonSource(bytes: number): string {
  return filled(
    'import os\n\n\n',
    (i) =>
      `def describe${i}(prefix, id):\n    """Describe${i} returns a text."""\n    if id > ${i}:\n        return prefix + "-" + str(id)\n` +
      `    parts = []\n    for k in range(3):\n        parts.append("x" * k)\n    return ",".join(parts)\n\n\n`,
    '',
    bytes,
  );
}

/** Ruby: module methods in one module. */
export function rubySource(bytes: number): string {
  return filled(
    'require "set"\n\nmodule Big\n',
    (i) => `  # Describe${i} returns a text.\n  def self.describe${i}(prefix, id)\n    if id > ${i}\n      return "#{prefix}-#{id}"\n    end\n    parts = []\n    3.times { |k| parts << "x" * k }\n    parts.join(",")\n  end\n\n`,
    'end\n',
    bytes,
  );
}

/** PHP: functions in a namespace, as PSR-12 lays them out. */
export function phpSource(bytes: number): string {
  return filled(
    '<?php\n\nnamespace Big;\n\n',
    (i) =>
      `/** Describe${i} returns a text. */\nfunction describe${i}(string $prefix, int $id): string\n{\n    if ($id > ${i}) {\n        return "{$prefix}-{$id}";\n    }\n` +
      `    $parts = [];\n    for ($k = 0; $k < 3; $k++) {\n        $parts[] = str_repeat("x", $k);\n    }\n    return implode(",", $parts);\n}\n\n`,
    '',
    bytes,
  );
}

/** TypeScript: exported top-level functions. */
export function typescriptSource(bytes: number): string {
  return filled(
    'import { join } from "node:path";\n\n',
    (i) =>
      `/** Describe${i} returns a text. */\nexport function describe${i}(prefix: string, id: number): string {\n  if (id > ${i}) {\n    return \`\${prefix}-\${id}\`;\n  }\n` +
      `  const parts: string[] = [];\n  for (let k = 0; k < 3; k++) {\n    parts.push("x".repeat(k));\n  }\n  return join(...parts);\n}\n\n`,
    '',
    bytes,
  );
}

/** Bash: functions as shfmt lays them out, a doc comment above each. */
export function bashSource(bytes: number): string {
  return filled(
    '#!/usr/bin/env bash\nset -euo pipefail\n\n',
    (i) =>
      `# describe${i} prints a text.\ndescribe${i}() {\n  local prefix="$1" id="$2"\n  if [[ "$id" -gt ${i} ]]; then\n    echo "\${prefix}-\${id}"\n  fi\n` +
      `  for k in 1 2 3; do\n    printf '%s,' "$(printf 'x%.0s' $(seq 1 "$k"))"\n  done\n  echo\n}\n\n`,
    '',
    bytes,
  );
}
