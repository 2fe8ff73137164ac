/** Tool descriptions for `--lang zh`. English is the default (fewer tokens); every tool has both. */
export type Lang = 'en' | 'zh';

export const zhDescriptions: Record<string, string> = {
  'be-read':
    '带行号读取文件。file："path"（整个文件）、"path:N"、"path:S-E" 或 "path:ALL"；行号从 1 开始，闭区间。' +
    '返回 viewed_code_id；传给 be-replace 可在文件已变化时拒绝编辑。',
  'be-replace':
    '用 content 替换第 S..E 行。file："path:N" 或 "path:S-E"（从 1 开始，闭区间）。省略 content 即删除该范围。' +
    '若给出 old，必须与当前行完全一致。be-read 返回的 viewed_code_id 可拒绝过期编辑。',
  'be-insert': '在第 N 行之后插入 content。file："path:N"（从 1 开始）；"path:0" 插入到文件开头。',
  'be-delete':
    '删除行。file："path:N"、"path:S-E"（从 1 开始，闭区间）或 "path:ALL"。' +
    '被删除的文本保存为碎片（结果中的 chip://<id>）；用 be-insert-chip 可以放回。',
  'be-write': '用 content 逐字节创建或覆盖整个文件；自动创建缺失的父目录。file：普通路径。',
  'be-func-range': '查找包含某行的最内层函数、方法或代码块。file：普通路径；line：从 1 开始。返回 {start, end}，可用于 be-read/be-replace。',
  'be-tag-range': '查找包含某行的最内层 XML/HTML/Vue 标签对。file：普通路径；line：从 1 开始。返回 {start, end, tag}。',
  'be-balance': '检查括号、花括号、圆括号、标签和引号是否配对（识别字符串和注释）。file：普通路径。',
  'be-insert-chip':
    '把碎片的原始文本（chip://<id>）或文件内容（file:///绝对路径，须在根目录内）插入到某行之后：' +
    'to："path:N"（第 N 行之后，"path:0" 为开头）。两者都省略则列出碎片；可用 tool、path、text 筛选列表（从新到旧）。',
  'be-trx':
    '本工作区的编辑历史。action：status（列出快照）、rollback（撤销最近 step 次编辑，从新到旧；' +
    '文件在快照后被改动时拒绝，除非 force）、commit（清空所有快照）、keep（保留一次编辑并忘记其快照：id）、' +
    'revert（按 id 撤销一次编辑，或按 session 撤销某会话的全部编辑，从新到旧；其所在行此后被改动时拒绝）。',
  'be-chip':
    '读取或删除一个碎片（失败调用的参数，或 be-delete 删除的文本）。action：get（完整记录和原始文本）、delete，' +
    '或 clear（全部碎片）。be-insert-chip 可列出 id 并插入碎片。',
};

export function describeTool(tool: { name: string; description: string; descriptionZh?: string }, lang: Lang): string {
  if (lang !== 'zh') return tool.description;
  return tool.descriptionZh ?? zhDescriptions[tool.name] ?? tool.description;
}
