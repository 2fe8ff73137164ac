/**
 * Per-language rules for turning a tree-sitter syntax tree into an outline. Node type names are those
 * of the grammars in @vscode/tree-sitter-wasm 0.3.1 (C: tree-sitter-wasms 0.1.13) (checked against the fixtures in test/fixtures/context).
 */
import type { Node } from '@vscode/tree-sitter-wasm';
import { languageById } from '../text/languages';
import { TEST_BLOCK_RULES } from './testBlocks';
import type { NodeRule } from './nodeRule';
import type { SymbolKind } from './types';

export type { NodeRule } from './nodeRule';

export interface LanguageSpec {
  rules: Record<string, NodeRule>;
  /** Nodes that wrap a declaration (export, decorators, templates): their range and doc comment count. */
  wrappers: Set<string>;
  /** Nodes whose children are scanned as if they were at the same level (Go `type (...)` blocks, Ruby bodies). */
  transparent?: Set<string>;
  imports: Set<string>;
  comments: Set<string>;
  /** Python: the first string of a body is the doc. */
  docstrings?: boolean;
  /** Ruby: top-level `require 'x'` calls are the imports. */
  requireCalls?: boolean;
}

/**
 * Rules that only give a kind, as `{ kind: 'node_type another_type' }`: `leaves` are symbols, `containers` also
 * hold members.
 */
// (keyed by string, not SymbolKind: TypeScript takes a literal's inherited `constructor` for the kind `constructor`)
function byKind(leaves: Readonly<Record<string, string>>, containers: Readonly<Record<string, string>> = {}): Record<string, NodeRule> {
  const rules: Record<string, NodeRule> = {};
  for (const [kind, types] of Object.entries(leaves)) for (const t of types.split(' ')) rules[t] = { kind: kind as SymbolKind };
  for (const [kind, types] of Object.entries(containers)) for (const t of types.split(' ')) rules[t] = { kind: kind as SymbolKind, container: true };
  return rules;
}

function firstOfType(n: Node, types: string[]): Node | undefined {
  for (const c of n.namedChildren) if (c && types.includes(c.type)) return c;
  return undefined;
}

/** C/C++: walk the declarator chain down to the identifier. */
function cDeclaratorName(n: Node): string | undefined {
  let d: Node | null = n.childForFieldName('declarator');
  for (let i = 0; d && i < 12; i++) {
    if (['identifier', 'field_identifier', 'qualified_identifier', 'destructor_name', 'operator_name', 'type_identifier'].includes(d.type)) {
      return d.text;
    }
    d = d.childForFieldName('declarator') ?? firstOfType(d, ['identifier', 'field_identifier', 'qualified_identifier', 'destructor_name', 'operator_name']) ?? null;
  }
  return undefined;
}

function hasFunctionDeclarator(n: Node): boolean {
  let d: Node | null = n.childForFieldName('declarator');
  for (let i = 0; d && i < 12; i++) {
    if (d.type === 'function_declarator') return true;
    d = d.childForFieldName('declarator');
  }
  return false;
}

const FUNCTION_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);

/** JS/TS `const f = () => …` is a function; other top-level bindings are variables or constants. */
const jsDeclarator: NodeRule = {
  kind: (n) => {
    const value = n.childForFieldName('value');
    if (value && FUNCTION_VALUES.has(value.type)) return 'function';
    const decl = n.parent;
    return decl?.text.startsWith('const') ? 'const' : 'variable';
  },
  topLevelOnly: true,
  name: (n) => n.childForFieldName('name')?.text,
};
const jsDeclarationList: NodeRule = {
  kind: 'variable',
  topLevelOnly: true,
  expand: (n) => n.namedChildren.filter((c): c is Node => !!c && c.type === 'variable_declarator'),
};

/** Class fields holding a function (`onError = (err) => {…}`) are methods; other fields are not listed. */
const jsFunctionField: NodeRule = {
  kind: (n) => (FUNCTION_VALUES.has(n.childForFieldName('value')?.type ?? '') ? 'method' : undefined),
  name: (n) => (n.childForFieldName('name') ?? n.childForFieldName('property'))?.text,
};

const JS_RULES: Record<string, NodeRule> = {
  ...TEST_BLOCK_RULES,
  public_field_definition: jsFunctionField,
  field_definition: jsFunctionField,
  call_signature: { kind: 'method', name: () => '()' },
  construct_signature: { kind: 'method', name: () => 'new' },
  class_declaration: { kind: 'class', container: true },
  abstract_class_declaration: { kind: 'class', container: true },
  class: { kind: 'class', container: true },
  interface_declaration: { kind: 'interface', container: true },
  type_alias_declaration: { kind: 'type' },
  enum_declaration: { kind: 'enum' },
  function_declaration: { kind: 'function' },
  generator_function_declaration: { kind: 'function' },
  function_signature: { kind: 'function' },
  method_definition: { kind: (n) => (n.childForFieldName('name')?.text === 'constructor' ? 'constructor' : 'method') },
  method_signature: { kind: 'method' },
  abstract_method_signature: { kind: 'method' },
  internal_module: { kind: 'module', container: true },
  module: { kind: 'module', container: true },
  lexical_declaration: jsDeclarationList,
  variable_declaration: jsDeclarationList,
  variable_declarator: jsDeclarator,
};

const JS: LanguageSpec = {
  rules: JS_RULES,
  wrappers: new Set(['export_statement', 'ambient_declaration']),
  transparent: new Set(['expression_statement', 'statement_block', 'class_body', 'interface_body', 'object_type']),
  imports: new Set(['import_statement']),
  comments: new Set(['comment']),
};

const PYTHON: LanguageSpec = {
  rules: {
    class_definition: { kind: 'class', container: true },
    function_definition: {
      kind: (n) => (n.childForFieldName('name')?.text === '__init__' ? 'constructor' : 'function'),
    },
    assignment: {
      kind: (n) => (/^[A-Z][A-Z0-9_]*$/.test(n.childForFieldName('left')?.text ?? '') ? 'const' : 'variable'),
      topLevelOnly: true,
      name: (n) => {
        const left = n.childForFieldName('left');
        return left?.type === 'identifier' ? left.text : undefined;
      },
    },
  },
  wrappers: new Set(['decorated_definition']),
  transparent: new Set(['expression_statement', 'block']),
  imports: new Set(['import_statement', 'import_from_statement', 'future_import_statement']),
  comments: new Set(['comment']),
  docstrings: true,
};

const GO: LanguageSpec = {
  rules: {
    function_declaration: { kind: 'function' },
    method_declaration: {
      kind: 'method',
      name: (n) => {
        const recv = n.childForFieldName('receiver')?.text.replace(/^\(\s*\w+\s+/, '(').replace(/\s+/g, ' ');
        return `${recv ? recv + '.' : ''}${n.childForFieldName('name')?.text ?? ''}`;
      },
    },
    type_spec: {
      kind: (n) => {
        const t = n.childForFieldName('type')?.type;
        return t === 'struct_type' ? 'struct' : t === 'interface_type' ? 'interface' : 'type';
      },
    },
    type_alias: { kind: 'type' },
    const_spec: { kind: 'const', topLevelOnly: true },
    var_spec: { kind: 'variable', topLevelOnly: true },
  },
  wrappers: new Set(),
  transparent: new Set(['type_declaration', 'const_declaration', 'var_declaration']),
  imports: new Set(['import_declaration']),
  comments: new Set(['comment']),
};

const RUST: LanguageSpec = {
  rules: {
    function_item: { kind: 'function' },
    function_signature_item: { kind: 'function' },
    struct_item: { kind: 'struct' },
    union_item: { kind: 'struct' },
    enum_item: { kind: 'enum' },
    trait_item: { kind: 'interface', container: true },
    impl_item: {
      kind: 'impl',
      container: true,
      name: (n) => {
        const trait = n.childForFieldName('trait')?.text;
        const type = n.childForFieldName('type')?.text ?? '';
        return trait ? `${trait} for ${type}` : type;
      },
    },
    mod_item: { kind: 'module', container: true },
    type_item: { kind: 'type' },
    const_item: { kind: 'const' },
    static_item: { kind: 'variable' },
    macro_definition: { kind: 'function' },
  },
  wrappers: new Set(),
  transparent: new Set(['declaration_list']),
  imports: new Set(['use_declaration', 'extern_crate_declaration']),
  comments: new Set(['line_comment', 'block_comment']),
};

const JAVA: LanguageSpec = {
  rules: byKind(
    { interface: 'annotation_type_declaration', method: 'method_declaration', constructor: 'constructor_declaration' },
    { class: 'class_declaration record_declaration', interface: 'interface_declaration', enum: 'enum_declaration' },
  ),
  wrappers: new Set(),
  transparent: new Set(['class_body', 'interface_body', 'enum_body', 'enum_body_declarations']),
  imports: new Set(['import_declaration']),
  comments: new Set(['line_comment', 'block_comment', 'comment']),
};

const C_RULES: Record<string, NodeRule> = {
  function_definition: { kind: 'function', name: cDeclaratorName },
  struct_specifier: {
    kind: (n) => (n.childForFieldName('body') ? 'struct' : undefined),
    container: true,
  },
  union_specifier: { kind: (n) => (n.childForFieldName('body') ? 'struct' : undefined) },
  enum_specifier: { kind: (n) => (n.childForFieldName('body') && n.childForFieldName('name') ? 'enum' : undefined) },
  type_definition: { kind: 'type', name: cDeclaratorName },
  // Prototypes in headers: `int order_total(...);`
  declaration: { kind: (n) => (hasFunctionDeclarator(n) ? 'function' : undefined), name: cDeclaratorName },
};

const C: LanguageSpec = {
  rules: C_RULES,
  wrappers: new Set(),
  transparent: new Set(['preproc_if', 'preproc_ifdef', 'preproc_else', 'linkage_specification', 'declaration_list']),
  imports: new Set(['preproc_include']),
  comments: new Set(['comment']),
};

const CPP: LanguageSpec = {
  rules: {
    ...C_RULES,
    class_specifier: { kind: (n) => (n.childForFieldName('body') ? 'class' : undefined), container: true },
    struct_specifier: { kind: (n) => (n.childForFieldName('body') ? 'struct' : undefined), container: true },
    namespace_definition: { kind: 'module', container: true, name: (n) => n.childForFieldName('name')?.text ?? '(anonymous)' },
    field_declaration: { kind: (n) => (hasFunctionDeclarator(n) ? 'method' : undefined), name: cDeclaratorName },
  },
  wrappers: new Set(['template_declaration']),
  transparent: new Set(['preproc_if', 'preproc_ifdef', 'preproc_else', 'linkage_specification', 'declaration_list', 'field_declaration_list', 'access_specifier']),
  imports: new Set(['preproc_include', 'using_declaration']),
  comments: new Set(['comment']),
};

const CSHARP: LanguageSpec = {
  rules: byKind(
    { enum: 'enum_declaration', method: 'method_declaration', constructor: 'constructor_declaration', type: 'delegate_declaration' },
    {
      module: 'namespace_declaration file_scoped_namespace_declaration',
      class: 'class_declaration record_declaration',
      struct: 'struct_declaration record_struct_declaration',
      interface: 'interface_declaration',
    },
  ),
  wrappers: new Set(),
  transparent: new Set(['declaration_list']),
  imports: new Set(['using_directive']),
  comments: new Set(['comment']),
};

const RUBY: LanguageSpec = {
  rules: {
    module: { kind: 'module', container: true },
    class: { kind: 'class', container: true },
    singleton_class: { kind: 'class', container: true, name: () => 'self' },
    // `def` is a method inside a class (upgraded by the walker), a function at top level or in a module.
    method: { kind: (n) => (n.childForFieldName('name')?.text === 'initialize' ? 'constructor' : 'function') },
    singleton_method: {
      kind: 'method',
      name: (n) => `${n.childForFieldName('object')?.text ?? 'self'}.${n.childForFieldName('name')?.text ?? ''}`,
    },
  },
  wrappers: new Set(),
  transparent: new Set(['body_statement']),
  imports: new Set(),
  comments: new Set(['comment']),
  requireCalls: true,
};

const PHP: LanguageSpec = {
  rules: {
    ...byKind(
      { function: 'function_definition' },
      { module: 'namespace_definition', class: 'class_declaration', interface: 'interface_declaration trait_declaration', enum: 'enum_declaration' },
    ),
    method_declaration: {
      kind: (n) => (n.childForFieldName('name')?.text === '__construct' ? 'constructor' : 'method'),
    },
  },
  wrappers: new Set(),
  transparent: new Set(['declaration_list', 'compound_statement']),
  imports: new Set(['namespace_use_declaration']),
  comments: new Set(['comment']),
};

const BASH: LanguageSpec = {
  rules: { function_definition: { kind: 'function' } },
  wrappers: new Set(),
  imports: new Set(),
  comments: new Set(['comment']),
};

/**
 * Outline rules by tree-sitter grammar stem: node types belong to a grammar, and which language a grammar parses
 * is the registry's to say (text/languages.ts), so typescript, tsx and javascript share the JS rules through it.
 */
const SPECS_BY_GRAMMAR: Record<string, LanguageSpec> = {
  typescript: JS,
  tsx: JS,
  javascript: JS,
  python: PYTHON,
  go: GO,
  rust: RUST,
  java: JAVA,
  c: C,
  cpp: CPP,
  'c-sharp': CSHARP,
  ruby: RUBY,
  php: PHP,
  bash: BASH,
};

export function languageSpec(languageId: string): LanguageSpec | undefined {
  const grammar = languageById(languageId)?.grammar;
  return grammar === undefined ? undefined : SPECS_BY_GRAMMAR[grammar];
}
