export { registerTokenWindow, TokenWindowProvider, TOKEN_WINDOW_VIEW_ID, SHOW_TOKEN_WINDOW_COMMAND } from './provider';
