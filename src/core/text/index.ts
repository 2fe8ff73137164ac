export * from './validate';
export * from './lines';
export * from './content';
export * from './splice';
export * from './range';
export * from './languages';
