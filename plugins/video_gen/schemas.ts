import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';
import { Asset } from '../media/public';

const Status = Type.Union([Type.Literal('queued'), Type.Literal('in_progress'), Type.Literal('completed'), Type.Literal('failed')], {
  description: 'As the provider reports it: queued, in_progress, then completed or failed.',
});

/** One video, as get_status, list_videos, the job's result and the video.* events show it. */
export const Video = Type.Object({
  object: Type.Literal('video'),
  id: Type.String({ description: 'Also the id of the job making it (GET STORE/jobs/{id}, get_job).' }),
  status: Status,
  progress: Type.Integer({ minimum: 0, maximum: 100, description: 'Percent done, as the provider reports it.' }),
  prompt: Type.String(),
  model: Type.String(),
  seconds: Type.Union([Type.Integer(), Type.Null()], { description: 'Length of the clip.' }),
  size: Type.Union([Type.String(), Type.Null()], { description: 'WIDTHxHEIGHT.' }),
  visibility: Type.Union([Type.Literal('public'), Type.Literal('private')]),
  media_id: Type.Union([Type.String(), Type.Null()], { description: 'The MP4 as a media asset, once completed.' }),
  media: Type.Union([Asset, Type.Null()], { description: 'That asset with its URL (null until completed, or once deleted).' }),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()], {
    description: 'Why it failed (the provider’s code and words), when failed.',
  }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
  completed_at: Type.Union([Timestamp(), Type.Null()]),
});

export const VideoCreate = Input({
  prompt: Type.String({ minLength: 1, maxLength: 32_000, description: 'What the video shows.' }),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Default SVC_VIDEO_MODEL (sora-2).' })),
  seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 60, description: 'Length in seconds as the model allows (sora-2: 4, 8 or 12).' })),
  size: Type.Optional(
    Type.String({
      pattern: '^\\d{2,4}x\\d{2,4}$',
      errorMessage: 'must be WIDTHxHEIGHT (e.g. 1280x720)',
      description: 'WIDTHxHEIGHT as the model allows (720x1280, 1280x720, 1024x1792, 1792x1024).',
    }),
  ),
  visibility: Type.Optional(Type.Union([Type.Literal('public'), Type.Literal('private')], { description: 'Of the MP4 asset (default public).' })),
});

export const VideoId = Input({ id: Uuid('The video (its job’s id).') });
export const VideoQuery = Input({ ...ListParams, status: Type.Optional(Status) });
export const VideoList = ListOf(Video);
