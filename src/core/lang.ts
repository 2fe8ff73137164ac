/** The language of agent- and user-facing text: English by default, upstream's Chinese with 'zh'. */
export type Lang = 'en' | 'zh';
