/**
 * The scores of one target (a session, one step of it, or a conversation) and what a member does with them: a quick thumbs up or
 * down (one per person and target: a second click replaces it), a score with a label and a comment, editing their
 * own scores and deleting them (admins and owners may delete any score).
 */
import { useEffect, useRef, useState } from "react";
import { type ScoreTarget, useDeleteScore, useSaveScore } from "../../api/scores";
import type { Environment, Score, ScoreConfig } from "../../api/types";
import { hasRole, useOrganisation } from "../../auth/organisation-context";
import { isMine, THUMBS } from "../../lib/score-values";
import { useTransient } from "../../lib/use-transient";
import { ConfirmDialog } from "../ConfirmDialog";
import { InlineError } from "../ErrorState";
import { ScoreDialog } from "./ScoreDialog";
import { ScoreList } from "./ScoreList";

export interface ScoreBoxProps {
  environment: Environment;
  /** What is scored: a session, one of its steps, or a conversation. */
  target: ScoreTarget;
  /** The target in words: "this session", the step's title, "this conversation". */
  targetName: string;
  scores: readonly Score[];
  configs: readonly ScoreConfig[];
  /** The label of the button that opens the form: "Add a score", "Label this step". */
  giveLabel: string;
}

/** A thumb drawn, not an emoji: every system shows it alike (a browser without an emoji font shows a box). */
function ThumbIcon({ direction }: { direction: "up" | "down" }) {
  return (
    <svg
      className={`thumbs__icon thumbs__icon--${direction}`}
      viewBox="0 0 24 24"
      width="16"
      height="16"
      aria-hidden="true"
      focusable="false"
    >
      <path
        fill="currentColor"
        d="M1 21h4V9H1v12zm22-11c0-1.1-.9-2-2-2h-6.31l.95-4.57.03-.32c0-.41-.17-.79-.44-1.06L14.17 1 7.59 7.59C7.22 7.95 7 8.45 7 9v10c0 1.1.9 2 2 2h9c.83 0 1.54-.5 1.84-1.22l3.02-7.05c.09-.23.14-.47.14-.73v-2z"
      />
    </svg>
  );
}

type Open = { kind: "give" } | { kind: "edit"; score: Score } | { kind: "delete"; score: Score } | null;

export function ScoreBox({ environment, target, targetName, scores, configs, giveLabel }: ScoreBoxProps) {
  const { me, role } = useOrganisation();
  const thumbs = useSaveScore(environment, target);
  const remove = useDeleteScore(environment, target);
  const [open, setOpen] = useState<Open>(null);
  const [message, showMessage] = useTransient<string>();
  // A deleted score takes its Delete button with it: the focus goes to the form's button, not to the page's top.
  const giveButton = useRef<HTMLButtonElement>(null);
  const [refocus, setRefocus] = useState(false);
  useEffect(() => {
    if (!refocus) return;
    giveButton.current?.focus();
    setRefocus(false);
  }, [refocus]);
  const myThumbs = scores.find(
    (score) => score.name === THUMBS && isMine(score, me.userId) && typeof score.value === "boolean",
  );
  const giveThumbs = (value: boolean) => {
    // Not disabled while sending (a disabled button would drop the keyboard focus): a click meanwhile is ignored.
    if (thumbs.isPending || myThumbs?.value === value) return;
    const body = { name: THUMBS, value, ...(myThumbs === undefined ? {} : { id: myThumbs.id }) };
    thumbs.mutate(body, {
      onSuccess: () => showMessage(value ? "Thumbs up given." : "Thumbs down given."),
    });
  };
  const close = () => {
    remove.reset();
    setOpen(null);
  };
  return (
    <div className="score-box">
      <div className="score-box__actions">
        <fieldset className="thumbs">
          <legend className="visually-hidden">Quick verdict on {targetName}</legend>
          <button
            type="button"
            className="button button--small thumbs__button"
            aria-pressed={myThumbs?.value === true}
            onClick={() => giveThumbs(true)}
          >
            <ThumbIcon direction="up" /> Thumbs up
          </button>
          <button
            type="button"
            className="button button--small thumbs__button"
            aria-pressed={myThumbs?.value === false}
            onClick={() => giveThumbs(false)}
          >
            <ThumbIcon direction="down" /> Thumbs down
          </button>
        </fieldset>
        <button
          ref={giveButton}
          type="button"
          className="button button--small"
          onClick={() => setOpen({ kind: "give" })}
        >
          {giveLabel}
        </button>
        <span className="muted status-line" role="status">
          {message ?? ""}
        </span>
      </div>
      <InlineError error={thumbs.error} />
      {scores.length === 0 ? null : (
        <ScoreList
          scores={scores}
          label={`Scores of ${targetName}`}
          myUserId={me.userId}
          canEdit={(score) => isMine(score, me.userId)}
          canDelete={(score) => isMine(score, me.userId) || hasRole(role, "admin")}
          onEdit={(score) => setOpen({ kind: "edit", score })}
          onDelete={(score) => setOpen({ kind: "delete", score })}
        />
      )}
      {open?.kind === "give" || open?.kind === "edit" ? (
        <ScoreDialog
          environment={environment}
          target={target}
          targetName={targetName}
          editing={open.kind === "edit" ? open.score : undefined}
          configs={configs}
          onClose={(saved) => {
            setOpen(null);
            if (saved !== undefined) showMessage(`Score ${saved} saved.`);
          }}
        />
      ) : null}
      {open?.kind === "delete" ? (
        <ConfirmDialog
          title={`Delete the score ${open.score.name}?`}
          confirmLabel="Delete score"
          onCancel={close}
          onConfirm={() =>
            remove.mutate(open.score.id, {
              onSuccess: () => {
                close();
                setRefocus(true);
                showMessage(`Score ${open.score.name} deleted.`);
              },
            })
          }
          pending={remove.isPending}
          error={remove.error}
        >
          <p>
            The score {open.score.name} of {targetName} is deleted for good.
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
