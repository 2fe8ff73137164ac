export * from './fileStore';
export * from './sandbox';
export * from './nodeFileStore';
export * from './lockDir';
