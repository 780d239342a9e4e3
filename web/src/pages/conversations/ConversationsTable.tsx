/** The conversation list: one line per conversation at desktop widths (cards on phones), each opening its page. */
import { Link } from "react-router";
import type { Conversation, Environment } from "../../api/types";
import { withEnvironment } from "../../lib/environment";
import { formatDateTime, formatNumber, formatShortDateTime } from "../../lib/format";

export function ConversationsTable({
  conversations,
  environment,
}: {
  conversations: readonly Conversation[];
  environment: Environment;
}) {
  return (
    <div className="table-scroll">
      <table className="table table--cards">
        <caption>{`Conversations (${environment}), newest first`}</caption>
        <thead>
          <tr>
            <th scope="col">Conversation</th>
            <th scope="col">Agent</th>
            <th scope="col">User</th>
            <th scope="col" className="num">
              Runs
            </th>
            <th scope="col">Started</th>
            <th scope="col">Last run</th>
          </tr>
        </thead>
        <tbody>
          {conversations.map((conversation) => (
            <tr key={conversation.id}>
              <th scope="row" data-label="Conversation" className="cell--name">
                <Link
                  to={withEnvironment(`/conversations/${encodeURIComponent(conversation.id)}`, environment)}
                  className="clamp"
                  title={conversation.id}
                >
                  {conversation.id}
                </Link>
              </th>
              <td data-label="Agent" className="cell--clip">
                <span className="clamp" title={conversation.agentName}>
                  {conversation.agentName}
                </span>
              </td>
              <td data-label="User" className="cell--clip">
                <span className="clamp" title={conversation.userId}>
                  {conversation.userId}
                </span>
              </td>
              <td data-label="Runs" className="num">
                {formatNumber(conversation.runCount)}
              </td>
              <td data-label="Started" className="cell--nowrap">
                <time dateTime={conversation.startedAt} title={formatDateTime(conversation.startedAt)}>
                  {formatShortDateTime(conversation.startedAt)}
                </time>
              </td>
              <td data-label="Last run" className="cell--nowrap">
                <time dateTime={conversation.lastRunAt} title={formatDateTime(conversation.lastRunAt)}>
                  {formatShortDateTime(conversation.lastRunAt)}
                </time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
