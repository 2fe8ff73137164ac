const fs=require('fs');const T=require('@vscode/tree-sitter-wasm');
(async()=>{await T.Parser.init({wasmBinary:fs.readFileSync('node_modules/@vscode/tree-sitter-wasm/wasm/tree-sitter.wasm')});
const L=await T.Language.load(fs.readFileSync('node_modules/@vscode/tree-sitter-wasm/wasm/tree-sitter-typescript.wasm'));
const p=new T.Parser();p.setLanguage(L);
const src=fs.readFileSync(process.argv[2],'utf8');
const t=p.parse(src);
const show=(n,d)=>{ if(d>3)return; for(const c of n.children){ if(c.hasError||c.isError||c.isMissing) {console.log(' '.repeat(d*2)+c.type+(c.isMissing?'(MISSING)':'')+' L'+(c.startPosition.row+1)+'-'+(c.endPosition.row+1)); show(c,d+1);} } };
show(t.rootNode,0);
})();
