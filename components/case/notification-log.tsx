import { Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import type { UserPrincipal } from "@/lib/auth/session";
import {
  ATTEMPT_OUTCOME_WORDS,
  canRequeue,
  eventTypeWords,
  NOTIFICATION_STATE_WORDS,
  REQUEUES_PER_NOTIFICATION_PER_HOUR,
} from "@/lib/domain/notification-attempts";
import { can } from "@/lib/domain/roles";
import type { LoggedNotification } from "@/lib/services/notification/case-notification-log";
import { NotificationRequeueButton } from "./notification-requeue-button";

/**
 * What the producer was sent about this case, and what each send's answer was (decision 066),
 * with a bounded, audited "send again" for people who may tell the producer.
 */
export function NotificationLog({
  caseId,
  messages,
  user,
}: {
  caseId: string;
  messages: LoggedNotification[];
  user: UserPrincipal;
}) {
  const mayRequeue = can(user.roles, "case:notify_producer");
  return (
    <section
      aria-labelledby="notification-log-heading"
      data-testid="notification-log"
      className="mt-4 rounded border border-slate-300 bg-white p-4"
    >
      <h2 id="notification-log-heading" className="font-semibold">
        Notifications to the producer
      </h2>
      {messages.length === 0 ? (
        <p className="mt-1 text-sm text-slate-700">Nothing has been sent to the producer about this case.</p>
      ) : (
        <>
          {mayRequeue ? (
            <p className="mt-1 text-sm text-slate-700">
              A notification can be sent again {REQUEUES_PER_NOTIFICATION_PER_HOUR} times an hour; each one is recorded
              on the timeline with who asked.
            </p>
          ) : null}
          <ul className="mt-2 space-y-4">
            {messages.map((message) => {
              const label = eventTypeWords(message.eventType);
              return (
                <li key={message.webhookId} className="border-l-2 border-slate-300 pl-3 text-sm">
                  <div className="flex flex-wrap items-baseline justify-between gap-2">
                    <p>
                      <span className="font-medium">{label}</span>
                      <span className="text-slate-700">
                        {" "}
                        · {NOTIFICATION_STATE_WORDS[message.state]} · created <Time at={message.createdAt} /> ·{" "}
                        {message.sendCount} {message.sendCount === 1 ? "send" : "sends"}
                      </span>
                    </p>
                    {mayRequeue ? (
                      <NotificationRequeueButton
                        caseId={caseId}
                        webhookId={message.webhookId}
                        label={label}
                        requeueable={canRequeue(message.state)}
                      />
                    ) : null}
                  </div>
                  {message.sends.length > 0 ? (
                    <Table caption={`Sends of "${label}", oldest first`} className="mt-2">
                      <TableHead columns={["Send", "Answer", { label: "Status code", align: "right" }, "When"]} />
                      <tbody>
                        {message.sends.map((send, index) => (
                          <tr key={send.id} className="border-b border-slate-200">
                            <td className="px-3 py-2">{message.sendCount - message.sends.length + index + 1}</td>
                            <td className="px-3 py-2">{ATTEMPT_OUTCOME_WORDS[send.outcome]}</td>
                            <td className="px-3 py-2 text-right tabular-nums">
                              {send.status === null ? "none" : `HTTP ${send.status}`}
                            </td>
                            <td className="px-3 py-2">
                              <Time at={send.answeredAt} />
                            </td>
                          </tr>
                        ))}
                      </tbody>
                    </Table>
                  ) : (
                    <p className="mt-1 text-slate-700">Not sent yet.</p>
                  )}
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}
