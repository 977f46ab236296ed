// The one Markdown renderer of the app, for every text an agent (or a person) writes: comments,
// run summaries, transcripts, documents. No HTML written in the text ever runs: react-markdown
// builds React elements from the Markdown syntax tree and never sets innerHTML; raw HTML in the
// text is shown as the text it is (`<img onerror=...>` appears as those characters), link and
// image addresses pass react-markdown's URL filter (only http, https, mailto, xmpp, irc and
// relative addresses: `javascript:` and `data:` become empty), and images are shown as links to
// their address rather than loaded, so a text cannot make the browser fetch anything by itself.
import type { ReactNode } from 'react'
import ReactMarkdown, { type Components, defaultUrlTransform } from 'react-markdown'

const components: Components = {
  // Links leave the app in a new tab and tell the page they open nothing about this one.
  a: ({ href, children }) =>
    href ? <a href={href} target="_blank" rel="noopener noreferrer nofollow">{children}</a> : <span>{children}</span>,
  img: ({ src, alt }) => {
    const address = typeof src === 'string' ? src : ''
    return address ? <a href={address} target="_blank" rel="noopener noreferrer nofollow">{alt || address}</a> : <span>{alt}</span>
  },
}

/** Only the addresses react-markdown calls safe; anything else is no address at all. */
function safeUrl(url: string): string {
  return defaultUrlTransform(url)
}

export function Markdown({ text, className, children }: { text: string; className?: string; children?: ReactNode }) {
  return (
    <div className={['markdown', className].filter(Boolean).join(' ')}>
      <ReactMarkdown components={components} urlTransform={safeUrl}>{text}</ReactMarkdown>
      {children}
    </div>
  )
}
