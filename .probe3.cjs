const fs=require('fs');const T=require('@vscode/tree-sitter-wasm');
(async()=>{await T.Parser.init({wasmBinary:fs.readFileSync('node_modules/@vscode/tree-sitter-wasm/wasm/tree-sitter.wasm')});
const L=await T.Language.load(fs.readFileSync('node_modules/@vscode/tree-sitter-wasm/wasm/tree-sitter-'+process.argv[3]+'.wasm'));
const p=new T.Parser();p.setLanguage(L);
const t=p.parse(fs.readFileSync(process.argv[2],'utf8'));
const show=(n,d)=>{ if(d>+(process.argv[4]||4))return; for(const c of n.namedChildren){ const f=n.children.indexOf? '':''; console.log(' '.repeat(d*2)+c.type+' L'+(c.startPosition.row+1)+'-'+(c.endPosition.row+1)+' '+JSON.stringify(c.text.slice(0,40))); show(c,d+1);} };
show(t.rootNode,0);})();
